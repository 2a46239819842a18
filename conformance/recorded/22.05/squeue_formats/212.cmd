run
squeue --states=CA --sort=i
