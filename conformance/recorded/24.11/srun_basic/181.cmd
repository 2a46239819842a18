run
srun --jobid=abc true
