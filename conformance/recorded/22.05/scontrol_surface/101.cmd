run
scontrol update jobid=$J2 shared=no
