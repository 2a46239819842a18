run
squeue -t all -h -j $X1 -o '%i %T %r'
