run
squeue -u spurtest --sort=i
