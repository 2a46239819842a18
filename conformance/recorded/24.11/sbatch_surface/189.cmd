run
squeue -h -j $S1 -o '%i %j %l'
