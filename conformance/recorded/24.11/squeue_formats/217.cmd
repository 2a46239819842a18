run
squeue -t CG
