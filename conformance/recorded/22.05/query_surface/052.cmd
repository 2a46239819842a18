run
squeue -s -h
