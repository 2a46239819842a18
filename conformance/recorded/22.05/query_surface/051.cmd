run
squeue -s
