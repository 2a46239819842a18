run
SLURM_DEBUG_FLAGS=Protocol scontrol show hostnames node[1-2]
