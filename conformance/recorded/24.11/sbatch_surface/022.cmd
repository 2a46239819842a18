run capture=P4
SBATCH_TIMELIMIT=40 sbatch --parsable pbs2.sh
