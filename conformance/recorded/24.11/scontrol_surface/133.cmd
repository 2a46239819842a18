run
scontrol update jobid=$J2 burstbuffer=x
