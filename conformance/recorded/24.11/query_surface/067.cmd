run
SQUEUE_ALL=1 squeue -h -o '%i'
