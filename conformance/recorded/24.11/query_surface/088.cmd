run
SLURM_BITSTR_LEN=0 squeue -h -o '%i %K' -j $J4
