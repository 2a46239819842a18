run
sinfo -N -o '%N %c'
