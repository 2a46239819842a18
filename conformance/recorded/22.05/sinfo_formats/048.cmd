run
sinfo -N -o '%N %R'
