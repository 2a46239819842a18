run
squeue -O 'JobID:,Name:'
