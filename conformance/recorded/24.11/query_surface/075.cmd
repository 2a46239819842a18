run
SQUEUE_STATES=PD squeue -h -o '%i %T'
