run
scontrol update jobid=$J2 arraytaskthrottle=2
