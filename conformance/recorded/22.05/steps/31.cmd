run
srun --jobid=$J --immediate=1 -n1 true
