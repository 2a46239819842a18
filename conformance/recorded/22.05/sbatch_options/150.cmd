run
squeue -t all -h --sort=i -o '%i %j %T'
