run
scontrol update jobid=$J2 numtasks=2
