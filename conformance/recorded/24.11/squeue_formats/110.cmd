run
squeue -t all --sort=i -O JobID,cpus-per-task
