run
squeue -t all -l
