run
squeue -L nosuch -h -o '%i'
