run
sinfo -t down
