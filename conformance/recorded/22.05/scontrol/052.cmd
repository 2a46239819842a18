run
scontrol show hostnames
