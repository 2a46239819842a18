run
sinfo -N -o '%N %z'
