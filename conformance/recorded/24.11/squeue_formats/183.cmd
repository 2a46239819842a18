run
squeue -t all --sort=i -O JobID,system_comment
