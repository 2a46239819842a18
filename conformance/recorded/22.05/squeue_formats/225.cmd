run
squeue -t all --sort=t,i
