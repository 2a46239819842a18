run
sinfo -e -N
