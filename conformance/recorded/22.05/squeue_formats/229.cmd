run
squeue -t all --sort=-D,i
