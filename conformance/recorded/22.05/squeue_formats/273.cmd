run
squeue -A nosuch
