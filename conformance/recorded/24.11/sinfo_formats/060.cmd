run
sinfo -N -o '%N %Z'
