run
scontrol show step $J.99
