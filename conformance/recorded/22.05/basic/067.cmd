run
scontrol show hostlistsorted node3,node1,node2
