run
scontrol release $R1
