run
squeue --start -j $J3
