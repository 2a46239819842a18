run
scontrol update jobid=$J2 features=fast
