run as=spurtest
scontrol update jobid=$J3 nice=-5
