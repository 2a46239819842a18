run
sinfo -N -o '%N %I'
