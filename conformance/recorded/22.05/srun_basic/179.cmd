run
srun --jobid=999 true
