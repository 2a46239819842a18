run
squeue -h -r -o '%i %T %l %r' -j $A
