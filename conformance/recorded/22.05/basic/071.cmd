run
scontrol hold $J7
