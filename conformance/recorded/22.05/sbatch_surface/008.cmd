run
SBATCH_DEBUG=2 sbatch --hold --wrap true
