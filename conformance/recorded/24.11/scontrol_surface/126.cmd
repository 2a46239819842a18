run
scontrol update jobid=$J2 reqprocs=2
