run
scontrol show job $S6
