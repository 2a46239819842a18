run
squeue -t PD
