run
scontrol update jobid=$J2 numnodes=2
