run
sinfo -N -o '%N %t %T %E'
