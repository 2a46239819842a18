run
scontrol show job $J3
