run
scontrol update jobid=$J2 reqcores=1
