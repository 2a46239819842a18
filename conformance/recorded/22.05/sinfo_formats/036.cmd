run
sinfo -N -o '%N %G'
