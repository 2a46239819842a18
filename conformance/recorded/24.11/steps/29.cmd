run
srun --jobid=$J -w node3 true
