run as=spurtest
srun --jobid=$J true
