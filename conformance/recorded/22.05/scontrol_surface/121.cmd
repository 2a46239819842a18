run
scontrol update jobid=$J2 corespec=1
