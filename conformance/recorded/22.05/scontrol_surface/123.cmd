run
scontrol update jobid=$J2 reqsockets=1
