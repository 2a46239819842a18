run
squeue -j $J3 -j $J4 --sort=i
