run
squeue --sort=i -o '%i:%j:%T:%N' -h
