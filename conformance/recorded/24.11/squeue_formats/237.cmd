run
squeue -t all --sort=m,i
