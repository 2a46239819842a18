run
squeue --yaml
