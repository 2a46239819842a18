run
squeue -t PD --sort=i -O JobID,TimeLeft
