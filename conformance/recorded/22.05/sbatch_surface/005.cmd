run
SBATCH_DEBUG=abc sbatch --hold --wrap true
