run
SLURM_TIME_FORMAT=standard sinfo -R -o '%N %H %E'
