run
sinfo -N -o '%N %t'
