run
squeue -h -j $S2 -o '%i %j %k'
