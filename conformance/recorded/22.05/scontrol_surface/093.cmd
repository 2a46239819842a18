run
scontrol update jobid=$J2 prefer=fast
