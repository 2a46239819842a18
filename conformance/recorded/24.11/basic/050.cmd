run
scontrol show job $J2
