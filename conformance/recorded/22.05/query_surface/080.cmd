run
SQUEUE_LICENSES=nosuch squeue -h -o '%i'
