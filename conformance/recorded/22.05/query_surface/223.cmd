run
SLURM_DEBUG_FLAGS=Protocol sinfo -h
