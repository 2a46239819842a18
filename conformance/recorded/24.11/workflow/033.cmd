run capture=W2
sbatch nf.sh
