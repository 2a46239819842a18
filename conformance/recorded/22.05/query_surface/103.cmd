run
SLURM_CLUSTERS=nosuch sinfo -h
