run
squeue -h -j $P5 -o '%i %j %l'
