run
squeue -h -j $E9 -o '%i %T'
