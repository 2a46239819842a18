run
squeue -h -r -o '%i %T' -j $J4
