run
scontrol hold 999999
