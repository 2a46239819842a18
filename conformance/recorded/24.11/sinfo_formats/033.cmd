run
sinfo -N -o '%N %d'
