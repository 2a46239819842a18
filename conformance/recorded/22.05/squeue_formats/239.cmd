run
squeue -t all --sort=-y,i
