run
SLURM_BITSTR_LEN=3 scontrol -d show job $J1
