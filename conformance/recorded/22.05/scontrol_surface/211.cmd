run
scontrol hold ${A}_2
