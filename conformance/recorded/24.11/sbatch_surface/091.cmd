run
SBATCH_PROFILE=bogus sbatch --hold --wrap true
