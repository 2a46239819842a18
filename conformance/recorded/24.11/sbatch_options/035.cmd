run
squeue -h -j $A12 -o '%i %m %l'
