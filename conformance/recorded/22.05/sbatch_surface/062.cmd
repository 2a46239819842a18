run
squeue -h -j $E6 -o '%i %T'
