run
scontrol requeue 999999
