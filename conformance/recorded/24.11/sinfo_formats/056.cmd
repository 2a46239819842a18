run
sinfo -N -o '%N %X'
