run
scontrol show step $J.0
