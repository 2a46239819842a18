run
sinfo -r
