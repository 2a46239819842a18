run
squeue --steps=$J.2 -o '%i %j %N'
