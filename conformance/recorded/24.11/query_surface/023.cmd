run
squeue --noconvert -o '%i %m'
