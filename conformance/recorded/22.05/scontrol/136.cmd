run
scontrol requeue $S2
