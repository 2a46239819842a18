run
squeue -r
