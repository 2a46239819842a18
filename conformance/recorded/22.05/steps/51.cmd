run
squeue -j $J -t all -o '%i %j %T %N'
