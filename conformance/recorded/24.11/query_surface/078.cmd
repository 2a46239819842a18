run
SQUEUE_ACCOUNT=nosuch squeue -h -o '%i'
