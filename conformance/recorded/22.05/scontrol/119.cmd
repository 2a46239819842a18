run
scontrol suspend $S5
