run
squeue -t r
