run
squeue -s -l -j $J
