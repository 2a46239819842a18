run
scontrol help
