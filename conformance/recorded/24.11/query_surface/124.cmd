run
SINFO_PARTITION=debug sinfo -h
