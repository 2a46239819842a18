run
squeue -h -t PD --sort=i -o '%i %T %r'
