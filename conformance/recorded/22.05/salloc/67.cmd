run
squeue -t all -o '%i %j %T %r' --sort=i | tail -3
