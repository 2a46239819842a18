run
squeue -t pending,running --sort=i
