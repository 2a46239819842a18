run
SLURM_TIME_FORMAT='%Y' sinfo -R -o '%N %H %E'
