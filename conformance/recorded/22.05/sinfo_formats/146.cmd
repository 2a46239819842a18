run
sinfo -N -o '%N %T' -S -T
