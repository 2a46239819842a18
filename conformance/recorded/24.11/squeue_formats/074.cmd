run
squeue -t PD --sort=i -o '%i %L'
