run
squeue -h -j $A10 -o '%i %E'
