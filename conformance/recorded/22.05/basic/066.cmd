run
scontrol show hostlist node3,node1,node2,node4
