run
squeue --states=all --sort=i
