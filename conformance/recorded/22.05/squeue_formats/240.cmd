run
squeue -t all --sort=r,i
