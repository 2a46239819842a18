run
squeue -h -j $B1 -o '%i %T %r'
