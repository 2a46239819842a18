run
sinfo -N -o '%N %p'
