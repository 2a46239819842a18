run
squeue -t all --sort=i -O JobID,exit_code
