run
scontrol update jobid=$J2 contiguous=1
