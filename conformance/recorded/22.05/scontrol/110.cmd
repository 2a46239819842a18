run as=spurtest
scontrol release $S4
