run
squeue -u spurtest -t all --sort=i
