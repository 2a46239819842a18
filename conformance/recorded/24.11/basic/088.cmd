run
scontrol show job $J1
