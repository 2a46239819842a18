run
sinfo -n nosuch
