run
sinfo
