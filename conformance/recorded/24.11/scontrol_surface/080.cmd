run
scontrol update jobid=$J2 name=renamed
