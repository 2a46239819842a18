run
scontrol power up node1
