run
SBATCH_DISTRIBUTION=bogus sbatch --hold --wrap true
