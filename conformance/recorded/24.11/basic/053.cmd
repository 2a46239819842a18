run
scontrol show job $J5
