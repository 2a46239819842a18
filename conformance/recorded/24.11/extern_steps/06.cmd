run
squeue -s $J.extern
