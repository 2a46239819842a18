run
squeue -L nosuch
