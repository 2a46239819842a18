run
squeue -h -j $W1 -o '%T'
