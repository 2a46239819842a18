run
SBATCH_SIGNAL=BOGUS sbatch --hold --wrap true
