run
scontrol update jobid=$J2 cpuspertask=2
