run
scontrol release $J3
