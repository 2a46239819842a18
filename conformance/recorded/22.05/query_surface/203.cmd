run
squeue -h -o '%i %T' -j $J3
