run
sinfo -R
