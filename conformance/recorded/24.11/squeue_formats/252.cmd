run
squeue -j $J7 -r
