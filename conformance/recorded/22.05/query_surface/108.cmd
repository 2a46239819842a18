run
sinfo -v
