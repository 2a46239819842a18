run
squeue -h -t all -j $J -o '%i %T %r'
