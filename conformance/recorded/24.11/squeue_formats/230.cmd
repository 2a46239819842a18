run
squeue -t all --sort=C,i
