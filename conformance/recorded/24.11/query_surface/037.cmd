run
squeue --help
