run
squeue --json --yaml
