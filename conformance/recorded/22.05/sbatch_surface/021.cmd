run
squeue -h -j $P3 -o '%i %j %l'
