run
scontrol update jobid=$J2 clusters=other
