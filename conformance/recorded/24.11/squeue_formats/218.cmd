run
squeue -t TO
