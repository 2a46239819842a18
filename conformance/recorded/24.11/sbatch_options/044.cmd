run
squeue -h -j $D1 -o '%i %j %l %k %y %T %r'
