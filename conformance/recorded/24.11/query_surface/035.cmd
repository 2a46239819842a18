run
SLURM_CLUSTERS=nosuch squeue -h -o '%i'
