run
scontrol update jobid=$J2 requeue=0
