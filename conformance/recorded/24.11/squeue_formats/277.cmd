run
squeue -t PD -u spurtest
