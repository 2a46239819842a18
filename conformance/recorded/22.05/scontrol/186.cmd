run
scontrol hold
