run
squeue -h -j $D4 -o '%i %j %l %k'
