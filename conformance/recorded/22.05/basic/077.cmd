run
squeue -h -j $J7 -o '%i %l %r'
