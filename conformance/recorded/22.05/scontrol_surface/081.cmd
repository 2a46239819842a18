run
scontrol update jobid=$J2 nice=10
