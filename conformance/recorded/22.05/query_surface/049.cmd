run
squeue -R nosuch
