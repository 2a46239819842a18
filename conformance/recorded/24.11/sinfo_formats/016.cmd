run
sinfo -R -N
