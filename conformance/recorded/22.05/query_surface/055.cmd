run
squeue --only-job-state -o '%i %T'
