run
scontrol show topology
