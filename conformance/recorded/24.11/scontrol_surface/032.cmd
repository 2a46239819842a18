run
scontrol ping -Q
