run
squeue -s -j $J
