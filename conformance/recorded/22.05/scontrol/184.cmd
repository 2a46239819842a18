run
scontrol show
