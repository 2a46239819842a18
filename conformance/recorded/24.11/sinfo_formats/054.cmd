run
sinfo -N -o '%N %r'
