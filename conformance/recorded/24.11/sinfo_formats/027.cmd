run
sinfo -N -o '%N %a'
