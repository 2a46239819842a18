run
scontrol update jobid=$J2 minmemorycpu=300
