run
squeue -p debug --sort=i
