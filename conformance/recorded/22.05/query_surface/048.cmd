run
squeue -q nosuch -h -o '%i'
