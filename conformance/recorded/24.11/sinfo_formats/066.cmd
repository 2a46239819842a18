run
sinfo -N -o '%N %w'
