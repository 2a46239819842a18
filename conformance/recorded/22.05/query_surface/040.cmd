run
squeue -v
