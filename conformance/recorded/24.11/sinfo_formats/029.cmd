run
sinfo -N -o '%N %Y'
