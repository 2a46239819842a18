run
squeue -t all --sort=T,i
