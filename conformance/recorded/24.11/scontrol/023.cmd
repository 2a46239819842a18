run
scontrol show jobid $S1
