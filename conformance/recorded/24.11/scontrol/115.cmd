run
scontrol hold $S2 $S4
