run
squeue
