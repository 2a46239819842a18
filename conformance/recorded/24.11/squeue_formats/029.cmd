run
squeue --start -h
