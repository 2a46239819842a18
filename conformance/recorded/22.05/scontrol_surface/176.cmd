run
scontrol show step $J2
