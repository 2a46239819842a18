run
scontrol pidinfo
