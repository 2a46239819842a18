run
scontrol show job 1
