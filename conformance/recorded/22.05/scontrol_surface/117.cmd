run
scontrol update jobid=$J2 extra=foo
