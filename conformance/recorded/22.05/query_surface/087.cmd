run
SLURM_BITSTR_LEN=3 squeue
