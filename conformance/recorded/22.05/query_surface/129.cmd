run
SCONTROL_FUTURE=1 sinfo -h
