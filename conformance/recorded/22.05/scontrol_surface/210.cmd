run
squeue -h -r -j $A -o '%i %T %r' --sort=i
