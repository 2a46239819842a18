run
squeue -t all
