run as=spurtest
scontrol update jobid=$J2 comment=theirs
