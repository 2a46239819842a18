run
scontrol show job 2
