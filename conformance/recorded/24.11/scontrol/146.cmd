run
squeue -h -j $S6 -o '%i %T %r'
