run
squeue -t all -j $J4
