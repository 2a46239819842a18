run
scontrol release $J7
