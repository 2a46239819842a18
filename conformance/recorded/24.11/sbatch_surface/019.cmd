run
squeue -h -j $P2 -o '%i %j %l %T %r'
