run
scontrol update jobid=$J2 threadspec=1
