run
sinfo -a
