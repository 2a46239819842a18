run
SBATCH_WAIT=0 sbatch --hold --wrap true
