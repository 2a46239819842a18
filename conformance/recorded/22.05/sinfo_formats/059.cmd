run
sinfo -N -o '%N %T'
