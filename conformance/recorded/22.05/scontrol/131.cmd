run
scontrol show job $S5
