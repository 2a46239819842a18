run
sinfo -N -o '%N %v'
