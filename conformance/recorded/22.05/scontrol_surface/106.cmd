run
scontrol update jobid=$J2 stdin=/dev/null
