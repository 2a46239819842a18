run
sinfo -N -o '%N %P'
