run
scontrol update jobid=$J2 minmemorynode=600
