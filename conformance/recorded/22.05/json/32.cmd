run
squeue --yaml -t all
