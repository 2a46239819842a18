run
scontrol show hostlistsorted node10,node9,node1,node02
