run
squeue -h -j $A7 -o '%i %T'
