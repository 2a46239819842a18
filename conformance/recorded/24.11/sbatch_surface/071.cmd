run
SBATCH_HINT=bogus sbatch --hold --wrap true
