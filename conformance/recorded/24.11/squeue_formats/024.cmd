run
squeue -l -r
