run
squeue -j $X1
