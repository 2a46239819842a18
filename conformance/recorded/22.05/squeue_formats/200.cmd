run
squeue -t all --sort=i -O 'JobID:.10,Partition:3,Reason:40'
