run
squeue -h -o '%i %T %N %v' -j $J1
