run
sinfo -R -l
