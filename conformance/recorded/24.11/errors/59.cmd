run
scontrol hold $R1
