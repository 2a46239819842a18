run
scontrol update jobid=$J2 account=acct1
