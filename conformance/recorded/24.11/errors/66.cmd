run as=spurtest
squeue -h -j $U1 -o '%i %l'
