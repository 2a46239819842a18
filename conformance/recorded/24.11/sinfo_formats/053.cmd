run
sinfo -N -o '%N %i'
