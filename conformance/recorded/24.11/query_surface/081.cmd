run
SQUEUE_PRIORITY=1 squeue -h -o '%i'
