run
sinfo -N -o '%N %L'
