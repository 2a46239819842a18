run
squeue -h -r -o '%i %T %l' -j $A
