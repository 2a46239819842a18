run
squeue -j $J -o '%i %j %T %N'
