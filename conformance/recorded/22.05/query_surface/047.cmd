run
squeue -q normal -h -o '%i'
