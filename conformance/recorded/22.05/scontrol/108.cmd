run
squeue -h -j $S4 -o '%i %T %r'
