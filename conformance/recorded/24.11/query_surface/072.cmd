run
SQUEUE_PARTITION=nosuch squeue -h -o '%i'
