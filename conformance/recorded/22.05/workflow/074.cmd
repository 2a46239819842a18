run
squeue -h --sort=i -o '%i %j %T %r %E'
