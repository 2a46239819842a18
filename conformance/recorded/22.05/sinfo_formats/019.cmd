run
sinfo -e
