run
SBATCH_GPUS_PER_TASK=1 sbatch --hold --wrap true
