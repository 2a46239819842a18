run as=spurtest
scontrol update jobid=$J3 name=ours numtasks=2
