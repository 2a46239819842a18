run
SLURM_CLUSTERS=spur squeue -h -o '%i'
