run
scontrol update jobid=$J2 tasksPerNode=1
