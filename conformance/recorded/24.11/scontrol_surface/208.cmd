run
scontrol requeue ${A}_2
