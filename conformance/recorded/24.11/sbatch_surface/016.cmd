run
scontrol show job $P1
