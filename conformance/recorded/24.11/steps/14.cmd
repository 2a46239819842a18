run as=spurtest
squeue -s
