run
scontrol show hostlist host
