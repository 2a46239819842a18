run
scontrol show node
