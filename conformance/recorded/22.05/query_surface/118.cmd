run
sinfo -R -h
