run
sinfo -h -s
