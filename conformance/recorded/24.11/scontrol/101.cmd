run
scontrol hold $S1
