run
squeue -n alpha
