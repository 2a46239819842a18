run
squeue -h -j $S2 -o '%i %T %r'
