run
scontrol show hostnames 'node1 node2'
