run
squeue -h -o '%i %T %r' -j $J2
