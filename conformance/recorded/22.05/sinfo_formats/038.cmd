run
sinfo -N -o '%N %B'
