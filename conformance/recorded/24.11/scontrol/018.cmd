run
scontrol show job $S4
