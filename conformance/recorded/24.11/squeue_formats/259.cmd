run
squeue --partition=debug -t PD --sort=i
