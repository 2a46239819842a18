run
scontrol pidinfo 1
