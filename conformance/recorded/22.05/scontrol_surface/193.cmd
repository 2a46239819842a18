run
squeue -h -r -j $B -o '%i %T %r'
