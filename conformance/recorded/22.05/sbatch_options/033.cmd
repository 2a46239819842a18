run
squeue -h -j $A11 -o '%i %Q %r'
