run
squeue -j $J5,$J1
