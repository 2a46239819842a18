run
squeue -t all --sort=i -O JobArrayId,ArrayJobId,ArrayTaskId,JobId
