run as=spurtest
scontrol requeue $S1
