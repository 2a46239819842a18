run
squeue -t all --sort=j,i
