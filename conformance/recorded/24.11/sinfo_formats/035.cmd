run
sinfo -N -o '%N %b'
