run
SINFO_PARTITION=nosuch sinfo -h
