run
scontrol update jobid=$J2 timemin=10
