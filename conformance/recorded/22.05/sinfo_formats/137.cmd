run
sinfo -n node1
