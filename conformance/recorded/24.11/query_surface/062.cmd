run
SQUEUE_FORMAT='%i %j %T' squeue -o '%i'
