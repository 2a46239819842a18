run
sbatch -v pbs4.sh
