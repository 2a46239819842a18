run
squeue -h -t all -j $C1,$C2,$C3,$C4 --sort=i -o '%i %j %T %r'
