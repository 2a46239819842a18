run
squeue --sort=-i
