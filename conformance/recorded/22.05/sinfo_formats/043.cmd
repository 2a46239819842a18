run
sinfo -N -o '%N %n'
