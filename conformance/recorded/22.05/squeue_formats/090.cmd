run
squeue -t all --sort=i -O JobID,admin_comment
