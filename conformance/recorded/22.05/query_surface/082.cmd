run
SQUEUE_FEDERATION=1 squeue -h -o '%i'
