run
squeue -M nosuch
