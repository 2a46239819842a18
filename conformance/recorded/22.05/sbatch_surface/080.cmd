run
squeue -h -j $E8 -o '%i %m'
