run
sinfo -N -o '%N %S'
