run
sinfo -N -o '%N %m'
