run
squeue --version
