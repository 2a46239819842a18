run
squeue -t ALL --sort=i
