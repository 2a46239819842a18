run
squeue -j $J6
