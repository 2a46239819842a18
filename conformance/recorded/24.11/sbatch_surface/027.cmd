run
squeue -h -j $P6 -o '%i %j %l'
