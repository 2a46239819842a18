run
srun true
