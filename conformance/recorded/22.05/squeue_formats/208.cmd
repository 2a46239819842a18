run
squeue --states=PENDING --sort=i
