run as=spurtest
scontrol update jobid=$J3 priority=100
