run
squeue -t all --sort=-l,i
