run
squeue -t all --sort=i -O JobID:6,Name:.8,State:12,UserName:.10
