run
squeue -t all -r --sort=i -O JobArrayId,ArrayJobId,ArrayTaskId,JobId
