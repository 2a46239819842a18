run
squeue -M all -h -o '%i'
