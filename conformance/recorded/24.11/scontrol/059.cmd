run
scontrol show hostlist node9,node10,node11
