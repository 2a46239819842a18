run
squeue --sort=i --Format=JobID,State,ReasonList
