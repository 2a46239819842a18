run
SBATCH_MEM_BIND=bogus sbatch --hold --wrap true
