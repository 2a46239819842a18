run
scontrol release 999999
