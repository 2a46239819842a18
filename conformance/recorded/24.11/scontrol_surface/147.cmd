run as=spurtest
scontrol update jobid=$J3 comment=mine
