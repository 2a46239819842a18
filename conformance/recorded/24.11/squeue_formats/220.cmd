run
squeue -t all --sort=-i
