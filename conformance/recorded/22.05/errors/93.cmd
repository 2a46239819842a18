run
scontrol show job $X4
