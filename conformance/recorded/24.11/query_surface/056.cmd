run
squeue -O 'JobID:5,Name:10,State:.10'
