run
scontrol show hostlist rack1-node1,rack1-node2,rack2-node1
