run
SLURM_CLUSTERS=spur scontrol show partition debug
