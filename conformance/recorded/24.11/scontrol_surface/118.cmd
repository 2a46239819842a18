run
scontrol update jobid=$J2 sitefactor=5
