run
scontrol update jobid=$J2 eligibletime=now+7200
