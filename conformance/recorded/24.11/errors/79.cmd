run
scontrol show job $X1
