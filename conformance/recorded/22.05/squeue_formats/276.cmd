run
squeue -j $J2 -u spurtest
