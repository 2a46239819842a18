run
scontrol show hostnames node1
