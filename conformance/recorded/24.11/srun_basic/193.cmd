run
srun --usage
