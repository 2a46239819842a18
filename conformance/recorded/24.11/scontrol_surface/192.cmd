run
scontrol show job $B
