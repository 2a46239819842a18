run
squeue -t all --sort=N,i
