run
scontrol show job 999999 -v
