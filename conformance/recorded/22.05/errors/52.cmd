run as=spurtest
scontrol hold $R1
