run
squeue -j $J1
