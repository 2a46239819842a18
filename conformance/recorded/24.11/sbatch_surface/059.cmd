run
SBATCH_THREAD_SPEC=1 sbatch --hold --wrap true
