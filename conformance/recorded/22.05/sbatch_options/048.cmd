run
squeue -h -j $D3 -o '%i %j %l %k'
