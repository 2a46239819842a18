run
SQUEUE_SIBLING=1 squeue -h -o '%i'
