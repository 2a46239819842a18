run
scontrol show job $J7
