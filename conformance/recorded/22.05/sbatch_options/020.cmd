run
squeue -h -j $A5 -o '%i %j %T %r'
