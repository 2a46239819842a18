run
squeue -t all --sort=P,i
