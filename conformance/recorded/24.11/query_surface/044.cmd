run
squeue -A nosuch -h -o '%i'
