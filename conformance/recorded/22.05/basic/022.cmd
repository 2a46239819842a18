run
squeue -h -o '%i %T %j'
