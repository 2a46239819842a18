run
sinfo -N -o '%N %U'
