run
scontrol update jobid=$J1 numnodes=2
