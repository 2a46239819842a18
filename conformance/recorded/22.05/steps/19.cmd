run
scontrol show step $J.batch
