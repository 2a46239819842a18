run
sinfo -N -o '%N %g'
