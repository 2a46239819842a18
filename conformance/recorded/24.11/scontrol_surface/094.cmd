run
scontrol update jobid=$J2 reservation=nope
