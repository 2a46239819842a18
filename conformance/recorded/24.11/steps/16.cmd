run
scontrol show step $J.2
