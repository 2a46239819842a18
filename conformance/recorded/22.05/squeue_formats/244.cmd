run
squeue -j $J1,$J3
