run
sinfo -h -N -n node2 -o '%N %t %T'
