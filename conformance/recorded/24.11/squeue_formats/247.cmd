run
squeue -j $J5
