run
squeue -P -h -o '%i %j'
