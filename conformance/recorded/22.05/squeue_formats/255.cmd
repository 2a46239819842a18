run
squeue -u root,spurtest --sort=i
