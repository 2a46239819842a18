run
squeue -w 'node[3-4]' --sort=i
