run
scontrol release $S2,$S4
