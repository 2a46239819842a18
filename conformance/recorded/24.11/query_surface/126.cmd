run
SINFO_ALL=1 sinfo -h
