run
scontrol update jobid=$J2 resetaccruetime
