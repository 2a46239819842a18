run
scontrol delete reservation nosuch
