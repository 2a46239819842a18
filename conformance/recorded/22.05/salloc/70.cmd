run
squeue -o '%i %j %T %r' --sort=i
