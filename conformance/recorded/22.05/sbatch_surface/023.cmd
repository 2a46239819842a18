run
squeue -h -j $P4 -o '%i %j %l'
