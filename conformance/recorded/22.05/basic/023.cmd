run
squeue -O JobID,Name,State,Reason
