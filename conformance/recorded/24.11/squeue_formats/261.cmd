run
squeue -n alpha,gamma --sort=i
