run
SLURM_TIME_FORMAT='%Y' scontrol show reservation r1
