run
SLURM_TIME_FORMAT='%Y' scontrol show job $J
