run
squeue -t R
