run
squeue --sort=i
