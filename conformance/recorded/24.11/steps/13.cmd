run
squeue -s -u spurtest
