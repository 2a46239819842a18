run
scontrol show job
