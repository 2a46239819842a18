run
SQUEUE_PARTITION=debug squeue -h -o '%i'
