run
squeue -h -j $J1 -o '%i %l %T'
