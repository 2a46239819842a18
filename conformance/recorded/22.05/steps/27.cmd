run
srun --jobid=$J -N3 true
