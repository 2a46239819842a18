run
sinfo -N -o '%N %C'
