run
sinfo -N -o '%N %s'
