run
scontrol update jobid=$J2 switches=1
