run
sinfo -h
