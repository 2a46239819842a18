run
squeue --json
