run
scontrol show partition
