run
squeue -h -t all -o '%i %T' -j $J5
