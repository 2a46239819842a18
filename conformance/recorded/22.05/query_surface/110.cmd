run
sinfo -v -h
