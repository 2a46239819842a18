run
scontrol update jobid=$B arraytaskthrottle=2
