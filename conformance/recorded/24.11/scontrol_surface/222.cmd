run
scontrol update jobid=${B}_2 arraytaskthrottle=1
