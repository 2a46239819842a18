run
squeue -h -j $J8 -o '%i %T'
