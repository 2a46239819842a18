run
squeue -h -j $S5 -o '%i %T %r'
