run
scontrol release $S4
