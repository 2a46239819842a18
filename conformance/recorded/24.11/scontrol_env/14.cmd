run
scontrol write
