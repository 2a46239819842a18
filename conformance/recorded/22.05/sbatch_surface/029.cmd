run capture=P7
sbatch --parsable pbs3.sh
