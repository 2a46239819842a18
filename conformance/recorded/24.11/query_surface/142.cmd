run
SLURM_CLUSTERS=nosuch scancel $J3
