run
squeue -t all --sort=i -O JobID,Prefer
