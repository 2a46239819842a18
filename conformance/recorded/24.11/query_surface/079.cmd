run
SQUEUE_QOS=normal squeue -h -o '%i'
