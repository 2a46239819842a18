run
scontrol update jobid=$J2 deadline=2031-01-01T00:00:00
