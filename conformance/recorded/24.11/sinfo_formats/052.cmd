run
sinfo -N -o '%N %E'
