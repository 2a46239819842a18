run
SQUEUE_NAMES=alpha,beta squeue -h -o '%i %j'
