run
scontrol show job $S2
