run
scontrol update jobid=$J2 reqnodes=1
