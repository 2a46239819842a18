run
scontrol show job $J6
