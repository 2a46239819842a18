run
squeue -p nosuch
