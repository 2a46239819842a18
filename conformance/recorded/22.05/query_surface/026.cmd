run
squeue --local -h -o '%i'
