run
squeue -O JobID,State,Reason -j $W1
