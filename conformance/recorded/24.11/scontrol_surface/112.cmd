run
scontrol update jobid=$J2 reqnodelist=node2
