run
SBATCH_ACCTG_FREQ=bogus sbatch --hold --wrap true
