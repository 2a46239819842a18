run
SBATCH_PARTITION=nosuch sbatch --wrap true
