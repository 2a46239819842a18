run
SBATCH_CORE_SPEC=1 sbatch --hold --wrap true
