run
squeue -t PD --sort=i
