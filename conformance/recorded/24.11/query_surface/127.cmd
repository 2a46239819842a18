run
SINFO_FEDERATION=1 sinfo -h
