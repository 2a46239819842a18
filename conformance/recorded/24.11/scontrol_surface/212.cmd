run
scontrol uhold ${A}_2
