run
squeue -j 999999
