run
scontrol update jobid=$B arraytaskthrottle=abc
