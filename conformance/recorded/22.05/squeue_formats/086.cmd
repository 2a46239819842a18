run
squeue --sort=i -o '%i %T' -r
