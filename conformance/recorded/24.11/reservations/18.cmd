run
sinfo -T
