run
sinfo -p debug -n node1
