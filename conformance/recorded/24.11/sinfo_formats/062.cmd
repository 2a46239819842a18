run
sinfo -N -o '%N %H'
