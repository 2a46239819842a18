run
SBATCH_GPU_BIND=closest SBATCH_GPU_FREQ=low sbatch --hold --wrap true
