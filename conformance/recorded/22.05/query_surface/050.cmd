run
squeue -R nosuch -h -o '%i'
