run as=spurtest
scontrol update jobid=$J3 timemin=5
