run
sinfo -F
