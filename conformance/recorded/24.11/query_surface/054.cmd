run
squeue -s -j $J1
