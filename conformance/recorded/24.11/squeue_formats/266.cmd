run
squeue -w node2,node3 --sort=i
