run
scontrol show step -d $J.2
