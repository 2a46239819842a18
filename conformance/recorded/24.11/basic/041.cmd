run
sinfo -s
