run
SBATCH_RESERVATION=nosuch sbatch --hold --wrap true
