run
squeue -h -j $D5 -o '%i %j %l %y %T'
