run
squeue -t all --sort=i -o '%i %l'
