run
squeue -a -h -o '%i'
