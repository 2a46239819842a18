run
sinfo -N -o '%N %V'
