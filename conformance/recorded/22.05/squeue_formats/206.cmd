run
squeue -t R --sort=i
