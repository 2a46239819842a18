run
squeue --start
