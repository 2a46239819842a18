run
scontrol ping
