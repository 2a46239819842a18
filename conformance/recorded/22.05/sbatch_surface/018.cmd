run capture=P2
sbatch --parsable pbs2.sh
