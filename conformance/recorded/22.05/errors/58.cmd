run
squeue -h -j $R1 -o '%i %T %l'
