run
SLURM_BITSTR_LEN=3 squeue -h -o '%i %K' -j $J4
