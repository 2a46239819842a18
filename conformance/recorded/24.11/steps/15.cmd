run
scontrol show step
