run
scontrol show node node1 -o
