run
scontrol update jobid=$J1 timelimit=25
