run
squeue -t all --sort=i -O JobID,Wait4Switch
