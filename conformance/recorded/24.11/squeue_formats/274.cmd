run
squeue -q normal
