run
squeue -l
