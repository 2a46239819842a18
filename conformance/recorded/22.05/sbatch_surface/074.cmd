run
SBATCH_GPUS_PER_NODE=1 sbatch --hold --wrap true
