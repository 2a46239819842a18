run
squeue --only-job-state -t PD -h
