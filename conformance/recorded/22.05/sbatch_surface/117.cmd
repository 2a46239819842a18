run
squeue -h -j $O7 -o '%i %T %r'
