run
squeue -h -t all -j $F1,$F2,$F3,$F4,$F5 --sort=i -o '%i %j %T %r'
