run
sinfo -i 0
