run
sinfo -p nosuch
