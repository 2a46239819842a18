run
scontrol show node node2
