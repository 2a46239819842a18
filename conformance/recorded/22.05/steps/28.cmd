run
srun --jobid=$J -n5 true
