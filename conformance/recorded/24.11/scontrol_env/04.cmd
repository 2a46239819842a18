run
SLURM_TIME_FORMAT=standard scontrol show job $J
