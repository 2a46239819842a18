run as=spurtest
squeue --sort=i
