run
scontrol requeue ${A}_6
