run
scontrol show hostlist node1,node01,node2
