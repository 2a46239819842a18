run capture=P5
SBATCH_IGNORE_PBS=1 sbatch --parsable pbs2.sh
