run
sinfo -N
