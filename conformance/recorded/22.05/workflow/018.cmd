run
squeue -j $W1
