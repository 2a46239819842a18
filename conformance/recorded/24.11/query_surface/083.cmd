run
SQUEUE_LOCAL=1 squeue -h -o '%i'
