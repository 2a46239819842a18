run
squeue -O 'JobID:3,UserName:.4,Partition:2'
