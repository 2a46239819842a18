run as=spurtest
scontrol update jobid=$J3 timelimit=60
