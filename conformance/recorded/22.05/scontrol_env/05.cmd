run
SLURM_TIME_FORMAT='%Y' scontrol show node node1
