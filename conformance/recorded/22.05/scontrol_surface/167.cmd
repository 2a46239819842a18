run
scontrol notify $J1
