run
squeue -w node1 --sort=i
