run
squeue -h -j $D2 -o '%i %j %l %k'
