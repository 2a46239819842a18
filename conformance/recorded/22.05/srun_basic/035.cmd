run
srun false
