run capture=P1
sbatch --parsable pbs1.sh
