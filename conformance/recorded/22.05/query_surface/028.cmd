run
squeue --federation --local -h -o '%i'
