run
squeue -s $J.2
