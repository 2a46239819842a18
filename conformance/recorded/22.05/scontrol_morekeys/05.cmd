run
scontrol show node node3
