run
sinfo -o '%N %m'
