run
sinfo -l
