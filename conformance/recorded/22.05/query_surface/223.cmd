run
squeue -h -t all -o '%i %T' --sort=i
