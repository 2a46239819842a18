run
squeue -t completed,failed,cancelled --sort=i
