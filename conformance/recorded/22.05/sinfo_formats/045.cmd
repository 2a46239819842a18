run
sinfo -N -o '%N %D'
