run
squeue -t all -h -j $T1 -o '%i %T %r %l'
