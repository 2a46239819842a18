run
squeue -h -j $S1 -o '%i %T %r'
