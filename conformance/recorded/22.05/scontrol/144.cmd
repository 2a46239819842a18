run
scontrol requeue $S6
