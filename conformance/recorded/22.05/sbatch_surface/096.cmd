run
SBATCH_POWER=level sbatch --hold --wrap true
