run
squeue -j $J7
