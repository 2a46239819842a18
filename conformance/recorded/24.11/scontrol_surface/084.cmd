run
scontrol update jobid=$J2 timelimit=40
