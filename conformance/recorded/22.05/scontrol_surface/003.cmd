run
scontrol completing
