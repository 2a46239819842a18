run
sinfo -N -o '%N %l'
