run
SLURM_CLUSTERS=spur sinfo -h
