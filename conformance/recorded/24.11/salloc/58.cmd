run
squeue -o '%i %j %T %D %N'
