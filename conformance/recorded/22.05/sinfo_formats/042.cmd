run
sinfo -N -o '%N %F'
