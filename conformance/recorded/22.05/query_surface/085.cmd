run
SLURM_TIME_FORMAT=standard squeue -h -o '%i %V'
