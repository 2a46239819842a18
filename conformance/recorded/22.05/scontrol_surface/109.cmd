run
scontrol update jobid=$J2 dependency=
