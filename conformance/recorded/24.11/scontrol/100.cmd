run
scontrol show job $S1
