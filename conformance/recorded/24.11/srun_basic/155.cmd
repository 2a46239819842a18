run
srun
