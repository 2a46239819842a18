run
squeue --only-job-state
