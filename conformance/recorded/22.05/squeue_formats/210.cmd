run
squeue --states=CD --sort=i
