run
squeue -i 0
