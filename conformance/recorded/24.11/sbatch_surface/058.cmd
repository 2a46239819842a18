run
SBATCH_THREAD_SPEC=1 SBATCH_CORE_SPEC=1 sbatch --hold --wrap true
