run
squeue --array
