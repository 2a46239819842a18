run
squeue -u nosuchuser
