run
squeue -h -o '%i %Q' --sort=i
