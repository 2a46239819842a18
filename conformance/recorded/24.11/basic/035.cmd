run
squeue --noheader -t PD
