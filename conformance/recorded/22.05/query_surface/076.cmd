run
SQUEUE_STATES=bogus squeue -h -o '%i %T'
