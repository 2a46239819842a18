run
scontrol requeue $Q
