run
squeue -h -t all -j $B3 -o '%i %T'
