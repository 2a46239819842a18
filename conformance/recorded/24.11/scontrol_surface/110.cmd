run
scontrol update jobid=$J2 partition=debug
