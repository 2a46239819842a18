run
squeue -t all -h -j $X3 -o '%i %T %r'
