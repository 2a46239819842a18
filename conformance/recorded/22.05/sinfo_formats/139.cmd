run
sinfo -n node2,node4 -N
