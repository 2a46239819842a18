run
srun --help
