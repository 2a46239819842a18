run
squeue -h -t PD
