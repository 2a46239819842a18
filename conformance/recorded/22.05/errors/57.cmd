run as=spurtest
squeue
