run
SBATCH_EXCLUSIVE=1 sbatch --wrap true
