run
SLURM_TIME_FORMAT='%Y' squeue -h -o '%i %V'
