run
SBATCH_GPUS=1 sbatch --hold --wrap true
