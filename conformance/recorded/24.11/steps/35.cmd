run
squeue -s -j $J -o '%i %j %N'
