run
scontrol show job $J4
