run
scontrol hold $S4
