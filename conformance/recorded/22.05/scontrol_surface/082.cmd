run
scontrol update jobid=$J2 priority=5
