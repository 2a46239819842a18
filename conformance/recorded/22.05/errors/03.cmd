run
squeue -h -j $T1 -o '%i %l'
