run
squeue -t all --sort=p,i
