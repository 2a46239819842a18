run
squeue --json -t all
