run
squeue -t all --sort=i -o '%i %j %T %D %N %C %l'
