run
squeue --expand-patterns -h -o '%i %j'
