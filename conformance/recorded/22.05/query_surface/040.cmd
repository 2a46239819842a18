run
squeue -v -h -o '%i'
