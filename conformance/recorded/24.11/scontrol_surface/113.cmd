run
scontrol update jobid=$J2 excnodelist=node3
