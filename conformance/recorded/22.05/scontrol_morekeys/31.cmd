run
scontrol show node node1
