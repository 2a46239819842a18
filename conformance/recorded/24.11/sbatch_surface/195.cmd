run capture=B1
sbatch --parsable bsub1.sh
