run
scontrol token
