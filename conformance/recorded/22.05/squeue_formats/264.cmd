run
squeue -n nosuchname
