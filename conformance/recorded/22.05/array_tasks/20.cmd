run
scontrol hold ${A}_[1,6]
