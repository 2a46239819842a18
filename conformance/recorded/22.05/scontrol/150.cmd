run
scontrol requeue $S1
