run
scontrol release jobid=$A
