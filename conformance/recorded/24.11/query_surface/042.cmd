run
squeue --hide -h -o '%i'
