run
SBATCH_CONSTRAINT='a&&b' sbatch --hold --wrap true
