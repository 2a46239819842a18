run
sinfo -s -N
