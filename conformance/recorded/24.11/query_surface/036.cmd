run
squeue --usage
