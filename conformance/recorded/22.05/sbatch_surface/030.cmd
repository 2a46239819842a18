run
squeue -h -j $P7 -o '%i %j'
