run
squeue --federation
