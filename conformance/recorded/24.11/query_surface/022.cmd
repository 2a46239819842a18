run
squeue -o '%i %m'
