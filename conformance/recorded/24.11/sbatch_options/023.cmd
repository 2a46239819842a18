run
squeue -h -j $A6 -o '%i %T'
