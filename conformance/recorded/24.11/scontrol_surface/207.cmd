run
scontrol requeue ${A}_9
