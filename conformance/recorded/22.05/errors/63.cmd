run as=spurtest
squeue -u spurtest
