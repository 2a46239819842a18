run
squeue -j $J1 -u spurtest
