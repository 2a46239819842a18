run
squeue --states=RUNNING,COMPLETED --sort=i
