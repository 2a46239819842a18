run
scontrol update jobid=$J2 qos=normal
