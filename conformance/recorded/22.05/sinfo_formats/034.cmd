run
sinfo -N -o '%N %f'
