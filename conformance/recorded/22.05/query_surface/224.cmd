run
SLURM_DEBUG_FLAGS=Protocol scancel -n nosuch
