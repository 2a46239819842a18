run
squeue -t all --sort=i -O JobID,mem-per-tres
