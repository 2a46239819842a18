run
scontrol update jobid=$J2 comment=hello
