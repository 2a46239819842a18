run
sinfo -N -o '%N %A'
