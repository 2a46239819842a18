run
squeue -u root --sort=i
