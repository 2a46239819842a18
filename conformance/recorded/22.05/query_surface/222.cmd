run
SLURM_DEBUG_FLAGS=Protocol squeue -h -o '%i'
