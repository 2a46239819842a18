run
scontrol show hostlist node1,node2,node3
