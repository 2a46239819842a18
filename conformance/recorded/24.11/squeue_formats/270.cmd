run as=spurtest
squeue --me
