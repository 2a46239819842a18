run
squeue -h -r -o '%i %T %l %k' -j $A
