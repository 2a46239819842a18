run
scontrol resume $S5
