run
squeue --states=F --sort=i
