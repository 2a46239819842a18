run capture=P8
sbatch --parsable pbs4.sh
