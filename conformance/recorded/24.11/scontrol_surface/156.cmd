run as=spurtest
scontrol update jobid=$J1 timelimit=5
