run
sinfo -d
