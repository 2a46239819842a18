run
scontrol update jobid=$J2 userid=1500
