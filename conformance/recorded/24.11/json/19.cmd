run
squeue --json=v0.0.1
