run
sinfo -N -o '%N %o'
