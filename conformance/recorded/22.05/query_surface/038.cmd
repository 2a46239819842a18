run
squeue -V
