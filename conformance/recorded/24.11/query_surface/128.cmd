run
SINFO_LOCAL=1 sinfo -h
