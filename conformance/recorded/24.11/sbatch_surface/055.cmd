run
SBATCH_NO_KILL=1 sbatch --hold --wrap true
