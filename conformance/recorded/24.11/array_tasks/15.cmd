run
squeue -h -r -o '%i %T %r' -j $A
