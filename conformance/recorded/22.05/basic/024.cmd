run
squeue -u root
