run
squeue -h --sort=i -O JobID,State
