run
sinfo -N -o '%N %M'
