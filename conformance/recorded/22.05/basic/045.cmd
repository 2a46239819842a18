run
sinfo -p debug
