run
squeue -O JobID,State,Reason -j 999999
