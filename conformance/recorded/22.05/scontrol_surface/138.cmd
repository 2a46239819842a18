run
scontrol update jobid=$J2 delayboot=10
